/**
 * The diagram as text: every state and where it goes. The drawing is for
 * eyes; this is what a screen reader (or a search in the page) gets.
 */
import type { DefinitionGraph } from "./definition-graph.ts";

interface Props {
  graph: DefinitionGraph;
  highlighted: ReadonlySet<string>;
  current: ReadonlySet<string>;
}

export function TransitionList({ graph, highlighted, current }: Props) {
  const nameOf = new Map(graph.states.map((s) => [s.id, s.id]));
  return (
    <details className="transition-list">
      <summary>States and transitions as text</summary>
      <table>
        <caption className="visually-hidden">States and where each one goes</caption>
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col">Type</th>
            <th scope="col">Goes to</th>
          </tr>
        </thead>
        <tbody>
          {graph.states.map((s) => (
            <tr key={s.id}>
              <th scope="row">
                {s.id}
                {s.start && " (start)"}
                {highlighted.has(s.id) && " (passed)"}
                {current.has(s.id) && " (now)"}
              </th>
              <td>{s.type}</td>
              <td>
                {graph.transitions
                  .filter((t) => t.source === s.id)
                  .map((t) => `${nameOf.get(t.target)}${t.label === "" ? "" : ` (${t.label})`}`)
                  .join(", ") || "—"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
