/** A safe, readable file name from free text: "My Counter App!" → "my-counter-app". */
export function fileSlug(text: string, fallback: string, maxChars = 60): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxChars)
    .replace(/-+$/, '');
  return slug || fallback;
}
