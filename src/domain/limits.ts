/** Caps on caller-supplied values, shared by validation in the engine and the HTTP schemas. */
export const MAX_ID_LENGTH = 128;
export const MAX_NAME_LENGTH = 256;
export const MAX_USERS_PER_ASSIGNMENT = 100;
/** Nested onAllCompleted / next chains deeper than this are refused. */
export const MAX_ASSIGNMENT_DEPTH = 10;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;
/** Ids: letters, digits and . _ - @ : — enough for emails, UUIDs and host ids, nothing that needs escaping. */
export const ID_PATTERN = "^[A-Za-z0-9._@:-]+$";
export const TENANT_PATTERN = "^[A-Za-z0-9._-]{1,64}$";
