/**
 * The branch switch (ui.md: combobox "Branch"): every branch of the session, the one the page
 * shows selected; choosing another shows that branch's latest turn on this page only. Where the
 * agent's next message goes is not changed here (the session page's "Continue from here").
 */
export function BranchSwitch({ names, shown, onChoose }: { names: string[]; shown: string; onChoose: (branch: string) => void }) {
  return (
    <div className="branch-switch">
      <label>
        <span>Branch</span>{' '}
        <select aria-label="Branch" value={shown} onChange={(event) => onChoose(event.target.value)}>
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
