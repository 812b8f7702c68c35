/** Process and task variables: any JSON object. */
export type Vars = Record<string, unknown>;
