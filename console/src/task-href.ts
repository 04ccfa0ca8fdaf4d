/** The console's own link to one task's page (`#/tasks/<agent>/<task>`), for any page that names a task. */
export const taskHref = (agentId: string, taskId: string) => `#/tasks/${encodeURIComponent(agentId)}/${encodeURIComponent(taskId)}`;
