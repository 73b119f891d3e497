import { ISOLATED_FILES, webTestConfig } from './vitest.config';

/** The web's test files that run with a DOM and a module graph of their own. */
export default webTestConfig({ name: 'web-isolated', include: ISOLATED_FILES, isolate: true });
