/**
 * The definition cache's incomplete fences: a fence that stays belongs to a process that
 * died mid-write, and keeps every node reading its scope from the store until someone
 * completes it. The operator checks the owner is gone, then completes it here.
 */
import { useCallback, useState } from "react";
import { engine } from "../../api.ts";
import { useLive } from "../../live.ts";
import { ConfirmButton } from "./confirm-button.tsx";
import { formatDuration, formatTime } from "./format.ts";
import type { CacheMutation } from "../../wire.ts";
import { useLoad } from "./use-load.ts";
import { segment } from "./path-segment.ts";
import { ErrorAlert } from "../../problem-text.tsx";

const readFences = () => engine<{ items: CacheMutation[] }>("admin/cache/mutations");

function FenceRow({ fence, onDone }: { fence: CacheMutation; onDone: (msg: string) => void }) {
  const complete = async () => {
    const r = await engine<{ completed: boolean }>(
      `admin/cache/mutations/${segment(fence.mutationId)}/complete`,
      { method: "POST" },
    );
    onDone(
      r.completed
        ? `Fence ${fence.mutationId} completed; the ${fence.scope} cache is in use again.`
        : `Fence ${fence.mutationId} was already completed; nothing changed.`,
    );
  };
  return (
    <tr>
      <td>
        <code>{fence.mutationId}</code>
      </td>
      <td>{fence.scope}</td>
      <td>
        <code>{fence.owner}</code>
      </td>
      <td>
        <time dateTime={fence.createdAt}>{formatTime(fence.createdAt)}</time>
      </td>
      <td>{formatDuration(fence.ageMs)}</td>
      <td>
        <ConfirmButton
          label="Complete"
          title="Complete this fence?"
          confirmLabel="Complete the fence"
          onConfirm={complete}
        >
          <p>
            Fence <code>{fence.mutationId}</code> of scope {fence.scope}, owned by{" "}
            <code>{fence.owner}</code>.
          </p>
          <p>
            Complete it only once that process is gone: completing a live writer&apos;s fence lets
            nodes cache data it may still change.
          </p>
        </ConfirmButton>
      </td>
    </tr>
  );
}

export function RepairsPage() {
  const load = useCallback(readFences, []);
  const { data, error, reload } = useLoad(load, "fences");
  // A fence opened or completed anywhere shows up without the Refresh button.
  useLive("fences", reload);
  const [done, setDone] = useState<string | null>(null);
  const onDone = (msg: string) => {
    setDone(msg);
    reload();
  };
  return (
    <section aria-labelledby="repairs-title">
      <h1 id="repairs-title">Repairs: cache fences</h1>
      <p>
        Incomplete definition-cache fences, oldest first. While a fence is open, every node reads
        its scope from the store. The reaper completes a fence whose owner stopped beating; complete
        one here when you know its owner is gone.
      </p>
      <p>
        <button type="button" className="secondary" onClick={reload}>
          Refresh
        </button>
      </p>
      {done !== null && (
        <p role="status" className="ok">
          {done}
        </p>
      )}
      <ErrorAlert error={error} />
      {data === null ? (
        error === null && <p aria-busy="true">Loading…</p>
      ) : data.items.length === 0 ? (
        <p className="empty">No incomplete fences: every scope&apos;s cache is in use.</p>
      ) : (
        <table className="fences">
          <caption className="visually-hidden">Incomplete fences</caption>
          <thead>
            <tr>
              <th scope="col">Mutation</th>
              <th scope="col">Scope</th>
              <th scope="col">Owner (host/pid/boot)</th>
              <th scope="col">Created</th>
              <th scope="col">Age</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((f) => (
              <FenceRow key={f.mutationId} fence={f} onDone={onDone} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
