/** The retry policy on its own: defaults, exponential backoff, jitter bounds, final failures. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NonRetryableError, toFailure } from "../../../src/domain/workflow-failure.ts";
import {
  backoffDelay,
  DEFAULT_RETRY,
  resolveRetryPolicy,
  retryDelay,
} from "../../../src/engine/durable/retry-policy.ts";

const policy = resolveRetryPolicy(
  { initialInterval: "1s", maxInterval: "10s" },
  { maxAttempts: 5 },
);

class PaymentDeclined extends Error {
  override name = "PaymentDeclined";
}

describe("retry policy", () => {
  it("takes the step's fields over the workflow's over the defaults", () => {
    assert.deepEqual(resolveRetryPolicy(undefined, undefined), DEFAULT_RETRY);
    assert.deepEqual(policy, {
      maxAttempts: 5,
      initialInterval: "1s",
      backoff: 2,
      maxInterval: "10s",
    });
  });

  it("doubles the delay per attempt up to maxInterval (no jitter at the top of the range)", () => {
    const top = () => 1;
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((a) => backoffDelay(policy, a, top)),
      [1_000, 2_000, 4_000, 8_000, 10_000, 10_000],
    );
  });

  it("keeps jitter within [base/2, base]", () => {
    const base = 4_000; // attempt 3 of 1 s doubling
    assert.equal(
      backoffDelay(policy, 3, () => 0),
      base / 2,
    );
    assert.equal(
      backoffDelay(policy, 3, () => 0.999_999),
      base,
    );
    for (let i = 0; i < 1_000; i++) {
      const d = backoffDelay(policy, 3);
      assert.ok(d >= base / 2 && d <= base, `delay ${d} outside [${base / 2}, ${base}]`);
    }
  });

  it("retries an ordinary failure until the attempts are used up", () => {
    const e = new Error("flaky");
    const delay = retryDelay(policy, 1, e, toFailure(e), undefined);
    assert.ok(delay !== null && delay >= 500 && delay <= 1_000);
    assert.equal(retryDelay(policy, 5, e, toFailure(e), undefined), null);
    // maxAttempts below 1 still allows the first attempt and no retry.
    const once = resolveRetryPolicy({ maxAttempts: 0 }, undefined);
    assert.equal(retryDelay(once, 1, e, toFailure(e), undefined), null);
  });

  it("does not retry NonRetryableError, a non-retryable failure or a listed error", () => {
    const nr = new NonRetryableError("no");
    assert.equal(retryDelay(policy, 1, nr, toFailure(nr), undefined), null);
    const declined = new PaymentDeclined("card");
    assert.equal(retryDelay(policy, 1, declined, toFailure(declined), [PaymentDeclined]), null);
    assert.equal(retryDelay(policy, 1, declined, toFailure(declined), ["PaymentDeclined"]), null);
    assert.notEqual(retryDelay(policy, 1, declined, toFailure(declined), ["Other"]), null);
    const failure = { ...toFailure(declined), nonRetryable: true };
    assert.equal(retryDelay(policy, 1, declined, failure, undefined), null);
  });
});
