/**
 * Fastify's own schema compilers (Ajv for requests, fast-json-stringify for
 * responses), each route's function compiled when the route first needs it
 * instead of at start.
 *
 * Why: the API declares ~70 routes, each with a body/query/params schema and a
 * response schema per status (a problem+json one for every error status it can
 * answer). Fastify compiles all of them before it listens: ~1 s of CPU of a
 * ~2 s server start on this 2-core machine, most of it for error responses a
 * node may never send. Every process start pays it — a `taskflow serve`, a
 * worker restarted after a crash, each node of a rolling deploy — and the test
 * suites start hundreds. Compiled lazily, a route pays a few milliseconds once,
 * at its first request (or first error of that status).
 *
 * What stays the same: the same compilers with the same options and shared
 * schemas, so a request is validated and a response serialised exactly as
 * before; test/unit/server/route-schemas-compile.test.ts compiles every route's
 * schemas eagerly, so a schema that would not compile still fails a test, not
 * a request.
 */
import { AjvCompiler } from "@fastify/ajv-compiler";
import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { FastifyServerOptions } from "fastify";

type Factories = NonNullable<
  NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]
>;
type ValidatorFactory = NonNullable<Factories["buildValidator"]>;
type SerializerFactory = NonNullable<Factories["buildSerializer"]>;
type Validate = ReturnType<ReturnType<ValidatorFactory>>;

/** One of each per process, as Fastify's defaults: they pool Ajv instances by options. */
const eagerValidators = AjvCompiler();
const eagerSerializers = SerializerSelector();

/** `compile()` once, on first use. */
function once<T>(compile: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: compile() }).value;
}

const buildValidator: ValidatorFactory = (externalSchemas, options) => {
  const compiler = eagerValidators(externalSchemas, options);
  return (route) => {
    const compiled = once(() => compiler(route));
    // Fastify reads `errors` after a failed call and passes Ajv's root-data
    // context when `schemaEnv` is set; both are forwarded from the real function.
    const validate = ((data: unknown, context?: unknown) => {
      const fn = compiled() as (data: unknown, context?: unknown) => ReturnType<Validate>;
      const result = fn(data, context);
      validate.errors = compiled().errors;
      return result;
    }) as Validate;
    Object.defineProperty(validate, "schemaEnv", {
      get: () => (compiled() as { schemaEnv?: unknown }).schemaEnv,
    });
    return validate;
  };
};

const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compiler = eagerSerializers(externalSchemas, options);
  return (route) => {
    const compiled = once(() => compiler(route));
    return (doc: unknown) => compiled()(doc);
  };
};

/** For `Fastify({ schemaController: { compilersFactory } })`. */
export const lazyCompilers: Factories = { buildValidator, buildSerializer };

/** Fastify's defaults, compiling at start: for the test that holds every schema compilable. */
export const eagerCompilers: Factories = {
  buildValidator: eagerValidators,
  buildSerializer: eagerSerializers,
};
