/**
 * The use cases of versioned definitions: validate, save the draft, publish,
 * retract, list, read, diff. Every write validates first and writes nothing
 * when a single finding is left; the store then applies it atomically.
 */
import type { DefinitionVersion, VersionSummary } from "../../domain/definition-version.ts";
import { DRAFT_VERSION } from "../../domain/definition-version.ts";
import { documentError, taskflowError, type FieldError } from "../../domain/errors.ts";
import type { ActorContext, TenantContext } from "../actor-context.ts";
import type { Clock } from "../clock-port.ts";
import type { CodeNames } from "./code-names.ts";
import { definitionDiff, type DiffEntry } from "./definition-diff.ts";
import type { ProcessDefinition } from "./definition-language.ts";
import type { DefinitionVersionStore, PublishedHead } from "./definition-version-store-port.ts";
import { isRecord } from "./json-pointer.ts";
import { referencedNames, type KnownNames } from "./reference-checks.ts";
import { prepareSchemaCompiler } from "./schema-compiler.ts";
import { triggerErrors, type PublishedTrigger } from "./trigger-checks.ts";
import {
  validateDefinition,
  type ValidationContext,
  type ValidationResult,
} from "./validate-definition.ts";

/** Which version a read means: a number, the newest published one, or the draft. */
export type VersionSelector = number | "latest" | "draft";

/** Told, after the commit, that a tenant's published heads changed; never throws. */
/** A key's published head changed on this node (a publish, or a retract of a published version). */
export type HeadsChanged = (tenantId: string, key: string) => Promise<void> | void;

export interface PublishOptions {
  /**
   * Publish though a `call` step or a sub-process workflow is known to no worker
   * yet: for a definition published ahead of the deploy that brings its code.
   * Its runs fail at that state until a worker serves it.
   */
  allowUnknownSteps?: boolean | undefined;
}

export class DefinitionVersions {
  private readonly listeners: HeadsChanged[] = [];

  constructor(
    private readonly store: DefinitionVersionStore,
    private readonly clock: Clock = { now: () => Date.now() },
    /** Which code steps and workflows exist; without it those references are not checked. */
    private readonly code?: CodeNames,
  ) {}

  /**
   * Called after every publish and retract, and awaited before they answer.
   * Here and not in the routes: whoever publishes (REST, the embedding
   * application's own calls, a test) the node's trigger routes follow, and a
   * 201 from publish means the new routes answer on this node.
   */
  onHeadsChanged(listener: HeadsChanged): void {
    this.listeners.push(listener);
  }

  /**
   * Sets up the forms' meta-schema now: on a busy machine that blocks for a
   * second or more, which a server must do before it serves (a blocked loop
   * sheds every request behind it), not in the first request. (The language's
   * own schema is compiled when the package is built.)
   */
  prepare(): void {
    prepareSchemaCompiler();
  }

  /** Without CodeNames: the step and workflow checks are reported as not made. */
  async validate(doc: unknown, context: ValidationContext = {}): Promise<ValidationResult> {
    return validateDefinition(doc, { ...(await this.codeKnown(doc)), ...context });
  }

  /** The steps and workflows `doc` names that exist, as the reference checks take them. */
  private async codeKnown(doc: unknown): Promise<KnownNames> {
    if (this.code === undefined) return {};
    const [steps, workflows] = await Promise.all([
      this.code.known("steps", referencedNames(doc, "steps")),
      this.code.known("workflows", referencedNames(doc, "workflows")),
    ]);
    return { steps, workflows };
  }

  /** Saves (overwrites) the key's draft; it must be valid as far as the tenant's store can tell. */
  async saveDraft(
    ctx: ActorContext,
    key: string,
    doc: unknown,
  ): Promise<{ key: string; savedAt: number }> {
    const definition = this.valid(key, doc, {});
    const at = this.clock.now();
    await this.store.saveDraft({
      tenantId: ctx.tenantId,
      key,
      body: JSON.stringify(definition),
      createdBy: ctx.actorId,
      at,
    });
    return { key, savedAt: at };
  }

  /**
   * Publishes `doc`, or the draft when there is none. Checked against the
   * tenant's published definitions too: sub-processes must name one (or this
   * key), triggers must not take another's route. A definition with no
   * difference from the key's published head (as diff tells, `/version`
   * aside) makes no new version: the answer is the head's, `unchanged`
   * (a published draft is consumed all the same) — so publishing the same
   * file on every deploy does not pile up versions.
   */
  async publish(
    ctx: ActorContext,
    key: string,
    doc?: unknown,
    options: PublishOptions = {},
  ): Promise<{ key: string; version: number; unchanged?: true }> {
    let source = doc;
    let draftBody: string | undefined;
    if (source === undefined) {
      const draft = await this.store.getVersion(ctx.tenantId, key, DRAFT_VERSION);
      if (!draft) throw taskflowError("DraftNotFound", { key });
      draftBody = draft.body;
      source = JSON.parse(draft.body) as unknown;
    }
    const heads = await this.store.publishedHeads(ctx.tenantId);
    const code = options.allowUnknownSteps === true ? {} : await this.codeKnown(source);
    const definition = this.valid(key, source, { ...code, ...publishContext(key, heads) });
    const outcome = await this.store.publishVersion({
      tenantId: ctx.tenantId,
      key,
      name: definition.name,
      definition: definition as unknown as Record<string, unknown>,
      createdBy: ctx.actorId,
      at: this.clock.now(),
      consumesDraft: draftBody === undefined ? undefined : { body: draftBody },
      checkHeads: (fresh) => checkRoutes(definition, fresh),
      sameAsHead: (head) => definitionDiff(JSON.parse(head.body), definition).length === 0,
    });
    if (!outcome.published) {
      throw taskflowError("DraftChanged", { key });
    }
    // Unchanged: the heads are as they were, and so are the routes.
    if (outcome.unchanged === true) return { key, version: outcome.version, unchanged: true };
    await this.headsChanged(ctx.tenantId, key);
    return { key, version: outcome.version };
  }

  /** Retracts a published version: no new runs start on it; it stays readable. Idempotent. */
  async retract(ctx: TenantContext, key: string, version: number): Promise<DefinitionVersion> {
    const outcome = await this.store.retractVersion({ tenantId: ctx.tenantId, key, version });
    if (outcome === "missing") throw taskflowError("VersionNotFound", { key, version });
    if (outcome === "retracted") await this.headsChanged(ctx.tenantId, key);
    return this.get(ctx, key, version);
  }

  async list(ctx: TenantContext, key: string): Promise<VersionSummary[]> {
    const versions = await this.store.listVersions(ctx.tenantId, key);
    if (versions.length === 0)
      throw taskflowError("NoPublishedVersion", { what: "definition with versions", key });
    return versions;
  }

  async get(ctx: TenantContext, key: string, which: VersionSelector): Promise<DefinitionVersion> {
    const v =
      which === "latest"
        ? await this.store.latestPublished(ctx.tenantId, key)
        : await this.store.getVersion(ctx.tenantId, key, which === "draft" ? DRAFT_VERSION : which);
    if (!v) throw taskflowError("VersionNotFound", { key, version: which });
    return v;
  }

  async diff(
    ctx: TenantContext,
    key: string,
    from: VersionSelector,
    to: VersionSelector,
  ): Promise<{ from: number; to: number; changes: DiffEntry[] }> {
    const [a, b] = await Promise.all([this.get(ctx, key, from), this.get(ctx, key, to)]);
    return {
      from: a.version,
      to: b.version,
      changes: definitionDiff(JSON.parse(a.body), JSON.parse(b.body)),
    };
  }

  private async headsChanged(tenantId: string, key: string): Promise<void> {
    for (const listener of this.listeners) await listener(tenantId, key);
  }

  /** The definition, or a Validation error with every finding; the key in the path must be the body's. */
  private valid(key: string, doc: unknown, context: ValidationContext): ProcessDefinition {
    const result = validateDefinition(doc, context);
    const errors: FieldError[] = result.valid ? [] : [...result.errors];
    if (isRecord(doc) && typeof doc["key"] === "string" && doc["key"] !== key) {
      errors.unshift({ pointer: "/key", reason: `must be the key in the path ('${key}')` });
    }
    if (errors.length > 0 || !result.valid) {
      throw definitionErrors(errors);
    }
    return result.definition;
  }
}

/**
 * The trigger routes again, on the heads read inside the publish's
 * transaction: the check before it may have read heads that a publish of
 * another key, committed since, has changed.
 */
function checkRoutes(definition: ProcessDefinition, heads: PublishedHead[]): void {
  if (!definition.triggers?.length) return;
  const { publishedTriggers } = publishContext(definition.key, heads);
  const errors = triggerErrors(definition, publishedTriggers);
  if (errors.length > 0) {
    throw definitionErrors(errors);
  }
}

/** What publishing checks across the tenant: the published keys and their triggers. */
function publishContext(key: string, heads: PublishedHead[]): ValidationContext {
  const definitions = new Set([key, ...heads.map((h) => h.key)]);
  const publishedTriggers: PublishedTrigger[] = [];
  for (const h of heads) {
    const body = JSON.parse(h.body) as { triggers?: unknown };
    if (!Array.isArray(body.triggers)) continue;
    for (const t of body.triggers as { method: string; path: string }[]) {
      publishedTriggers.push({ key: h.key, version: h.version, method: t.method, path: t.path });
    }
  }
  return { definitions, publishedTriggers };
}

/** A definition refused with every finding. */
const definitionErrors = (errors: readonly FieldError[]) =>
  documentError(
    "InvalidDefinition",
    { detail: `the definition has ${errors.length} error(s)` },
    errors,
  );
