/** The strings of a stored JSON array; anything that is not one (or not JSON) reads as empty. */
export function parseStringArray(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string')
      : [];
  } catch {
    return [];
  }
}
