/**
 * The code step of the leave-approval definition: booking the leave in the HR
 * system (here a fake one that remembers what it booked). Registered when the
 * module is imported, as `taskflow serve|worker --workflows` does.
 */
import { registerStep } from "taskflow";

export interface LeaveBooking {
  bookingId: string;
  employee: string;
  days: number;
  startsOn: string;
}

/** The fake HR system: bookings by idempotency key, so a step run twice books once. */
export const bookings = new Map<string, LeaveBooking>();

registerStep("book-leave", (input, { idempotencyKey }) => {
  const { employee, days, startsOn } = input as Omit<LeaveBooking, "bookingId">;
  const known = bookings.get(idempotencyKey);
  if (known !== undefined) return known;
  const booking = { bookingId: `bk-${bookings.size + 1}`, employee, days, startsOn };
  bookings.set(idempotencyKey, booking);
  return booking;
});
