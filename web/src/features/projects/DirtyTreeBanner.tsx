/** Placeholder: the live dirty-tree warning (ui.md: an alert with the message and the paths). */
export function DirtyTreeBanner() {
  return null;
}
