/**
 * Word banks of the demo source. Small on purpose: the point is a realistic mix (languages,
 * hashtags, links, mentions), not prose.
 */

/** Sentences per language; a tweet joins one or two of them. */
export const PHRASES: Readonly<Record<string, readonly string[]>> = {
  en: [
    'Shipped a new release today, feedback welcome',
    'Hot take: most dashboards show too many numbers',
    'Reading about distributed systems again',
    'Coffee first, then the bug hunt',
    'This chart explains the whole week',
    'Small teams move faster than you think',
    'What are you building this weekend?',
    'Thread on what we learned from the outage',
    'Just published the slides from my talk',
    'The best code is the code you delete',
    'Weekly numbers are in and they look good',
    'Trying a new workflow, so far so good',
  ],
  es: [
    'Hoy lanzamos una nueva versión',
    'Buenos días a todos, a trabajar',
    'Qué semana tan intensa',
    'Les comparto lo que aprendí este mes',
  ],
  fr: [
    'Nouvelle version en ligne aujourd’hui',
    'Bonne journée à tous',
    'Petit retour sur la conférence',
    'On recrute, faites tourner',
  ],
  de: [
    'Heute ist die neue Version erschienen',
    'Guten Morgen zusammen',
    'Kurzer Rückblick auf die Woche',
    'Wer ist nächste Woche in Berlin?',
  ],
  ja: [
    '新しいバージョンを公開しました',
    'おはようございます',
    '今週のまとめです',
    '週末は何を作りますか',
  ],
  pt: [
    'Lançamos uma nova versão hoje',
    'Bom dia, pessoal',
    'Resumo da semana',
    'Alguém vai ao evento amanhã?',
  ],
  it: ['Oggi esce la nuova versione', 'Buongiorno a tutti', 'Riassunto della settimana'],
};

export const LANGUAGES = Object.keys(PHRASES);

/** Hashtag pool; each persona draws its own vocabulary from it. */
export const HASHTAGS: readonly string[] = [
  'TypeScript',
  'JavaScript',
  'NodeJS',
  'WebDev',
  'OpenSource',
  'DevOps',
  'AI',
  'MachineLearning',
  'DataViz',
  'Startups',
  'Product',
  'Design',
  'UX',
  'Security',
  'Cloud',
  'Rust',
  'Python',
  'Music',
  'Football',
  'Travel',
  'Photography',
  'Coffee',
  'Books',
  'Gaming',
  'Climate',
  'Science',
  'Space',
  'Fitness',
  'Food',
  'Art',
];

/** Accounts the demo handles reply to, quote and retweet. */
export const OTHER_ACCOUNTS: readonly string[] = [
  'alice_dev',
  'bob_builds',
  'carla_m',
  'devnews',
  'the_data_guy',
  'sam_ships',
  'nadia_k',
  'opensourcefan',
  'lena_design',
  'tokyo_tech',
];

export const LINK_DOMAINS: readonly string[] = [
  'https://example.com/blog',
  'https://github.com/example',
  'https://news.example.org/story',
  'https://youtu.be',
  'https://medium.com/@example',
];
