/**
 * A HumanTaskApi that hands every call to another one: the base of the
 * decorators that add something around a few calls (waking a run when its
 * task completes, checking a definition's form first) and leave the rest
 * alone. Every method is delegated explicitly, so a method added to the
 * interface is a compile error here, not a silent gap in one decorator.
 */
import type { HumanTaskApi } from "./human-task-api.ts";

export abstract class HumanTaskApiDecorator implements HumanTaskApi {
  constructor(protected readonly inner: HumanTaskApi) {}

  start: HumanTaskApi["start"] = (ctx, req) => this.inner.start(ctx, req);
  assign: HumanTaskApi["assign"] = (ctx, req) => this.inner.assign(ctx, req);
  complete: HumanTaskApi["complete"] = (ctx, taskId, req) => this.inner.complete(ctx, taskId, req);
  completeAndEnd: HumanTaskApi["completeAndEnd"] = (ctx, taskId, req) =>
    this.inner.completeAndEnd(ctx, taskId, req);
  claim: HumanTaskApi["claim"] = (ctx, taskId) => this.inner.claim(ctx, taskId);
  release: HumanTaskApi["release"] = (ctx, taskId) => this.inner.release(ctx, taskId);
  getTask: HumanTaskApi["getTask"] = (ctx, taskId) => this.inner.getTask(ctx, taskId);
  delegate: HumanTaskApi["delegate"] = (ctx, id, req) => this.inner.delegate(ctx, id, req);
  resolve: HumanTaskApi["resolve"] = (ctx, id, req) => this.inner.resolve(ctx, id, req);
  reassign: HumanTaskApi["reassign"] = (ctx, id, req) => this.inner.reassign(ctx, id, req);
  comment: HumanTaskApi["comment"] = (ctx, taskId, text) => this.inner.comment(ctx, taskId, text);
  taskEvents: HumanTaskApi["taskEvents"] = (ctx, taskId, page) =>
    this.inner.taskEvents(ctx, taskId, page);
  instanceEvents: HumanTaskApi["instanceEvents"] = (ctx, id, page) =>
    this.inner.instanceEvents(ctx, id, page);
  userInbox: HumanTaskApi["userInbox"] = (ctx, userId, page, status) =>
    this.inner.userInbox(ctx, userId, page, status);
  groupInbox: HumanTaskApi["groupInbox"] = (ctx, groupId, page, status) =>
    this.inner.groupInbox(ctx, groupId, page, status);
  getInstance: HumanTaskApi["getInstance"] = (ctx, id) => this.inner.getInstance(ctx, id);
  completion: HumanTaskApi["completion"] = (ctx, id) => this.inner.completion(ctx, id);
  listProcesses: HumanTaskApi["listProcesses"] = (ctx, userId, state, page, created) =>
    this.inner.listProcesses(ctx, userId, state, page, created);
  listDefinitions: HumanTaskApi["listDefinitions"] = (ctx, page) =>
    this.inner.listDefinitions(ctx, page);
  getDefinition: HumanTaskApi["getDefinition"] = (ctx, key) => this.inner.getDefinition(ctx, key);
}
