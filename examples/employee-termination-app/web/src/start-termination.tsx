/** HR's form: who leaves, their last day, their manager (who hands the work over), why. */
import { useEffect, useState, type FormEvent } from "react";
import { api, messageOf } from "./api.ts";

interface Manager {
  id: string;
  name: string;
}

export function StartTermination({ onStarted }: { onStarted: () => void }) {
  const [managers, setManagers] = useState<Manager[]>([]);
  const [employee, setEmployee] = useState("");
  const [lastDay, setLastDay] = useState("");
  const [manager, setManager] = useState("");
  const [reason, setReason] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api<{ items: Manager[] }>("/managers")
      .then((r) => setManagers(r.items))
      .catch((e: unknown) => setError(messageOf(e)));
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api("/terminations", "POST", { employee, lastDay, manager, reason });
      setMessage(`Termination of ${employee} started.`);
      setEmployee("");
      setReason("");
      onStarted();
    } catch (err) {
      setError(messageOf(err));
    }
  };

  return (
    <section aria-labelledby="start-title">
      <h2 id="start-title">Start a termination</h2>
      <form onSubmit={(e) => void submit(e)} aria-labelledby="start-title" className="grid">
        <label htmlFor="employee">Employee</label>
        <input
          id="employee"
          value={employee}
          onChange={(e) => setEmployee(e.target.value)}
          required
        />
        <label htmlFor="last-day">Last day</label>
        <input
          id="last-day"
          type="date"
          value={lastDay}
          onChange={(e) => setLastDay(e.target.value)}
          required
        />
        <label htmlFor="manager">Manager</label>
        <select id="manager" value={manager} onChange={(e) => setManager(e.target.value)} required>
          <option value="">Choose…</option>
          {managers.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
            </option>
          ))}
        </select>
        <label htmlFor="reason">Reason</label>
        <input id="reason" value={reason} onChange={(e) => setReason(e.target.value)} />
        <button type="submit">Start termination</button>
      </form>
      {message !== null && <p role="status">{message}</p>}
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}
