/** Text and attribute values in our HTML pages: the five characters that matter, as entities. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
