/**
 * The app's one panel look: a white card on the page's grey, for a form, a titled block, a figure or an empty
 * list (the classes are in app/globals.css). `compact` is the tighter padding of a filter bar or a figure card.
 */
export function panelClass({ compact = false }: { compact?: boolean } = {}): string {
  return compact ? "panel panel-compact" : "panel";
}
