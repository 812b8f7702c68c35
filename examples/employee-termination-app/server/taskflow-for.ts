/**
 * The TaskFlow client a request may use: the caller's company as the tenant
 * (X-Tenant-Id) and the caller as the actor (X-Actor-Id), both from the
 * session. The API key is inside `client`, on the server only.
 */
import type { ActingClient, TaskflowClient } from "taskflow/client";
import type { Caller } from "./request-guards.ts";

export const taskflowFor = (client: TaskflowClient, caller: Caller): ActingClient =>
  client.withTenant(caller.person.company).as(caller.person.id);
