/** A task as the backend sends it (server/task-view.ts). */
export type Step = "it" | "finance" | "handover" | "close";

export interface TaskView {
  id: string;
  step: Step;
  title: string;
  status: string;
  assignee: string;
}
