/**
 * A leave request: the employee starts it, their manager approves it in the inbox
 * (a user task), HR approves it too (a group task) when it is longer than five days,
 * then it is booked. Until the leave starts the employee may still withdraw it
 * (a signal); when the start date comes without one, the team is told.
 *
 * Load it into a server with
 *   taskflow serve --workflows examples/leave-approval/workflows.ts
 * or embed it with createTaskflow(config, { workflows: { leave } }) (see main.ts).
 */
import { workflow } from "taskflow";

export interface LeaveRequest {
  requestId: string;
  employee: string;
  manager: string;
  days: number;
  /** ISO-8601 date-time the leave starts. */
  startsAt: string;
}

export type LeaveStatus = "approved" | "rejected" | "withdrawn";

export interface LeaveOutcome {
  requestId: string;
  status: LeaveStatus;
  /** Who approved, in order (manager, then HR when days > 5). */
  approvedBy: string[];
  rejectedBy: string | null;
  /** The rejection note, or the withdrawal reason. */
  note: string | null;
  bookingId: string | null;
}

/** Longer requests also need HR. */
export const HR_THRESHOLD_DAYS = 5;

/** A fake HR system that deduplicates by the step's idempotency key. */
export class LeaveServices {
  readonly log: string[] = [];
  private readonly bookings = new Map<string, string>();
  private readonly done = new Set<string>();
  private seq = 0;

  book(key: string, employee: string, days: number, startsAt: string): string {
    let id = this.bookings.get(key);
    if (id === undefined) {
      id = `bk-${++this.seq}`;
      this.bookings.set(key, id);
      this.log.push(`book ${id} ${employee} ${days}d from ${startsAt.slice(0, 10)}`);
    }
    return id;
  }

  unbook(key: string, bookingId: string): void {
    if (this.done.has(key)) return;
    this.done.add(key);
    this.log.push(`unbook ${bookingId}`);
  }

  notify(key: string, message: string): void {
    if (this.done.has(key)) return;
    this.done.add(key);
    this.log.push(`notify ${message}`);
  }
}

const note = (vars: Record<string, unknown> | null): string | null =>
  typeof vars?.note === "string" ? vars.note : null;

/** Builds the `leave` workflow over the given HR system (tests pass their own). */
export function leaveWorkflow(hr: LeaveServices) {
  return workflow("leave", async (ctx, req: LeaveRequest): Promise<LeaveOutcome> => {
    const outcome: LeaveOutcome = {
      requestId: req.requestId,
      status: "rejected",
      approvedBy: [],
      rejectedBy: null,
      note: null,
      bookingId: null,
    };
    const details = { employee: req.employee, days: req.days, startsAt: req.startsAt };

    // 1. The manager decides in their inbox: { vars: { action: "approve" | "reject", note? } }.
    const manager = await ctx.humanTask("manager-approval", {
      assignee: { kind: "user", id: req.manager },
      vars: details,
    });
    if (manager.action !== "approve") {
      return { ...outcome, rejectedBy: manager.completedBy, note: note(manager.vars) };
    }
    outcome.approvedBy.push(manager.completedBy!);

    // 2. Longer leave also needs HR: any member of the group claims and decides.
    if (req.days > HR_THRESHOLD_DAYS) {
      const hrDecision = await ctx.humanTask("hr-approval", {
        assignee: { kind: "group", id: "hr" },
        vars: { ...details, approvedBy: outcome.approvedBy },
      });
      if (hrDecision.action !== "approve") {
        return { ...outcome, rejectedBy: hrDecision.completedBy, note: note(hrDecision.vars) };
      }
      outcome.approvedBy.push(hrDecision.completedBy!);
    }

    // 3. Book it. A step: its side effect is recorded once, and retried with the same key.
    const bookingId = await ctx.step("book", ({ idempotencyKey }) =>
      hr.book(idempotencyKey, req.employee, req.days, req.startsAt),
    );
    outcome.bookingId = bookingId;

    // 4. Until the leave starts the employee may withdraw it:
    //    POST /v1/runs/{id}/signals/withdraw { "reason": "…" }.
    //    The wait is durable (no memory held; a restart does not lose it), a signal sent
    //    earlier is kept for it, and it gives null once the timeout passes.
    //    ctx.now(), not Date.now(): the timeout must come out the same on replay.
    const untilStart = Math.max(0, Date.parse(req.startsAt) - ctx.now());
    const withdrawal = await ctx.waitForSignal<{ reason?: string }>("withdraw", {
      timeout: untilStart,
    });
    if (withdrawal !== null) {
      await ctx.step("unbook", ({ idempotencyKey }) => hr.unbook(idempotencyKey, bookingId));
      return { ...outcome, status: "withdrawn", note: withdrawal.reason ?? null };
    }

    await ctx.step("notify-team", ({ idempotencyKey }) =>
      hr.notify(idempotencyKey, `${req.employee} is on leave for ${req.days} days`),
    );
    return { ...outcome, status: "approved" };
  });
}

/** The HR system the exported workflow uses (in memory; one per process). */
export const hrSystem = new LeaveServices();

export const leave = leaveWorkflow(hrSystem);
