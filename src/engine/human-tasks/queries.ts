import { completionOf, type Completion } from "../../domain/completion.ts";
import { checkCreatedRange, type CreatedRange } from "../../domain/created-range.ts";
import type { Definition } from "../../domain/definition.ts";
import { taskflowError } from "../../domain/errors.ts";
import type { Instance, ProcessState } from "../../domain/instance.ts";
import type { Task } from "../../domain/task.ts";
import type { TenantContext, ActorContext } from "../actor-context.ts";
import { requireId, listUser } from "./checks.ts";
import type { InstanceTree, Page, PageRequest } from "./human-task-api.ts";
import type { HumanTaskDeps } from "./deps.ts";
import { fetchPage } from "./pagination.ts";

/** Referrals hang under their root, so trees are shallow; the bound only guards malformed data. */
const MAX_TREE_DEPTH = 16;

export async function getTask(deps: HumanTaskDeps, ctx: TenantContext, id: string): Promise<Task> {
  requireId("task id", id);
  const t = await deps.store.getTask(ctx.tenantId, id);
  if (!t) throw taskflowError("TaskNotFound", { taskId: id });
  return t;
}

/** The inbox: the user's own open tasks, open tasks of the user's groups, and tasks the user claimed. */
export function userInbox(
  deps: HumanTaskDeps,
  ctx: TenantContext,
  userId: string,
  page: PageRequest,
): Promise<Page<Task>> {
  requireId("user", userId);
  const assignees = [
    { kind: "user" as const, id: userId },
    ...deps.directory.groupsOf(userId).map((id) => ({ kind: "group" as const, id })),
  ];
  return fetchPage(page, (q) =>
    deps.store.inbox({ ...q, tenantId: ctx.tenantId, assignees, claimedBy: userId }),
  );
}

export function groupInbox(
  deps: HumanTaskDeps,
  ctx: TenantContext,
  groupId: string,
  page: PageRequest,
): Promise<Page<Task>> {
  requireId("group", groupId);
  const assignees = [{ kind: "group" as const, id: groupId }];
  return fetchPage(page, (q) => deps.store.inbox({ ...q, tenantId: ctx.tenantId, assignees }));
}

export async function getInstance(
  deps: HumanTaskDeps,
  ctx: TenantContext,
  id: string,
): Promise<InstanceTree> {
  requireId("instance id", id);
  const inst = await deps.store.getInstance(ctx.tenantId, id);
  if (!inst) throw taskflowError("InstanceNotFound", { instanceId: id });
  return loadTree(deps, inst, 0);
}

async function loadTree(deps: HumanTaskDeps, inst: Instance, depth: number): Promise<InstanceTree> {
  const [children, tasks] = await Promise.all([
    depth < MAX_TREE_DEPTH ? deps.store.listChildren(inst.tenantId, inst.id) : Promise.resolve([]),
    deps.store.listTasksOfInstance(inst.tenantId, inst.id),
  ]);
  return {
    ...inst,
    tasks,
    children: await Promise.all(children.map((c) => loadTree(deps, c, depth + 1))),
  };
}

export async function completion(
  deps: HumanTaskDeps,
  ctx: TenantContext,
  id: string,
): Promise<Completion> {
  requireId("instance id", id);
  if (!(await deps.store.getInstance(ctx.tenantId, id)))
    throw taskflowError("InstanceNotFound", { instanceId: id });
  return completionOf(id, await deps.store.countTasksByStatus(ctx.tenantId, id));
}

export async function listProcesses(
  deps: HumanTaskDeps,
  ctx: TenantContext | ActorContext,
  whose: string | undefined,
  state: ProcessState | undefined,
  page: PageRequest,
  created: CreatedRange = {},
): Promise<Page<Instance>> {
  const userId = listUser(deps.directory, ctx, whose);
  checkCreatedRange(created);
  return fetchPage(page, (q) =>
    deps.store.listProcesses({
      ...q,
      tenantId: ctx.tenantId,
      startedBy: userId,
      state,
      createdFrom: created.from,
      createdUntil: created.until,
    }),
  );
}

export function listDefinitions(
  deps: HumanTaskDeps,
  ctx: TenantContext,
  page: PageRequest,
): Promise<Page<Definition>> {
  return fetchPage(page, (q) => deps.store.listDefinitions(ctx.tenantId, q));
}

export async function getDefinition(
  deps: HumanTaskDeps,
  ctx: TenantContext,
  key: string,
): Promise<Definition> {
  requireId("definition key", key);
  const d = await deps.store.getDefinition(ctx.tenantId, key);
  if (!d) throw taskflowError("DefinitionNotFound", { key });
  return d;
}
