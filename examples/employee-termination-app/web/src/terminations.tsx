/** HR: start a termination, and follow the ones started (in progress → closed). */
import { api } from "./api.ts";
import { StartTermination } from "./start-termination.tsx";
import { usePolled } from "./use-polled.ts";

interface Termination {
  id: string;
  employee: string;
  lastDay: string;
  status: string;
}

const readTerminations = () => api<{ items: Termination[] }>("/terminations");

export function Terminations() {
  const { data, error, reload } = usePolled(readTerminations);
  const items = data?.items ?? [];
  return (
    <>
      <StartTermination onStarted={reload} />
      <section aria-labelledby="terminations-title">
        <h2 id="terminations-title">Terminations you started</h2>
        {error !== null && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {items.length === 0 ? (
          <p>None started yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Employee</th>
                <th scope="col">Last day</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {items.map((t) => (
                <tr key={t.id} data-termination={t.id}>
                  <td>{t.employee}</td>
                  <td>{t.lastDay}</td>
                  <td className={`status-${t.status.replace(" ", "-")}`}>{t.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
