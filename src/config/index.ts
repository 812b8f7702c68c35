export type { ConfigOverrides, ListenAddress, LogLevel, TaskflowConfig } from "./config.ts";
export { isDevelopment } from "./config.ts";
export { ConfigError, isConfigError } from "./config-error.ts";
export { loadConfig, type LoadConfigOptions } from "./load-config.ts";
export { assertKeysOutsideDevelopment } from "./validate-config.ts";
