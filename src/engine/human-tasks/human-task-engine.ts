import type { HumanTaskApi } from "./human-task-api.ts";
import { assign } from "./assign.ts";
import { claim, release } from "./claim.ts";
import { complete, completeAndEnd } from "./complete.ts";
import { KnownDefinitions } from "./known-definitions.ts";
import type { HumanTaskDeps } from "./deps.ts";
import * as q from "./queries.ts";
import { startProcess } from "./start-process.ts";
import * as trail from "./task-trail.ts";
import * as handover from "./task-handover.ts";
import { listTasks } from "./task-lists.ts";
import type { Clock } from "../clock-port.ts";
import type { Directory } from "../directory-port.ts";
import type { TaskStore } from "./task-store-port.ts";

const systemClock: Clock = { now: () => Date.now() };

/** The human-task engine: each method is one use case of the inbox (see human-tasks/ and docs/api.md). */
export class HumanTaskEngine implements HumanTaskApi {
  private readonly deps: HumanTaskDeps;

  constructor(deps: { store: TaskStore; directory: Directory; clock?: Clock }) {
    this.deps = {
      ...deps,
      clock: deps.clock ?? systemClock,
      definitions: new KnownDefinitions(),
    };
  }

  start: HumanTaskApi["start"] = (ctx, req) => startProcess(this.deps, ctx, req);
  assign: HumanTaskApi["assign"] = (ctx, req) => assign(this.deps, ctx, req);
  claim: HumanTaskApi["claim"] = (ctx, id) => claim(this.deps, ctx, id);
  release: HumanTaskApi["release"] = (ctx, id) => release(this.deps, ctx, id);
  complete: HumanTaskApi["complete"] = (ctx, id, req) => complete(this.deps, ctx, id, req);
  completeAndEnd: HumanTaskApi["completeAndEnd"] = (ctx, id, req) =>
    completeAndEnd(this.deps, ctx, id, req);
  getTask: HumanTaskApi["getTask"] = (ctx, id) => q.getTask(this.deps, ctx, id);
  delegate: HumanTaskApi["delegate"] = (ctx, id, req) => handover.delegate(this.deps, ctx, id, req);
  resolve: HumanTaskApi["resolve"] = (ctx, id, req) => handover.resolve(this.deps, ctx, id, req);
  reassign: HumanTaskApi["reassign"] = (ctx, id, req) => handover.reassign(this.deps, ctx, id, req);
  comment: HumanTaskApi["comment"] = (ctx, id, text) => trail.comment(this.deps, ctx, id, text);
  taskEvents: HumanTaskApi["taskEvents"] = (ctx, id, page) =>
    trail.taskEvents(this.deps, ctx, id, page);
  instanceEvents: HumanTaskApi["instanceEvents"] = (ctx, id, page) =>
    trail.instanceEvents(this.deps, ctx, id, page);
  userInbox: HumanTaskApi["userInbox"] = (ctx, u, p, s = "open") =>
    listTasks(this.deps, ctx, { kind: "user", id: u }, s, p);
  groupInbox: HumanTaskApi["groupInbox"] = (ctx, g, p, s = "open") =>
    listTasks(this.deps, ctx, { kind: "group", id: g }, s, p);
  getInstance: HumanTaskApi["getInstance"] = (ctx, id) => q.getInstance(this.deps, ctx, id);
  completion: HumanTaskApi["completion"] = (ctx, id) => q.completion(this.deps, ctx, id);
  listProcesses: HumanTaskApi["listProcesses"] = (ctx, u, s, p, c) =>
    q.listProcesses(this.deps, ctx, u, s, p, c);
  listDefinitions: HumanTaskApi["listDefinitions"] = (ctx, p) =>
    q.listDefinitions(this.deps, ctx, p);
  getDefinition: HumanTaskApi["getDefinition"] = (ctx, k) => q.getDefinition(this.deps, ctx, k);
}
