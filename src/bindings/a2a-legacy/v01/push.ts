/** The webhook body of a config a v0.1 client registered (specification.md §9 at v0.1.0): the bare Task under the client's own id, `sessionId`, v0.1 parts. */
import type { Task } from '../../../protocol/a2a/types.js';
import { taskFromV1 } from '../../../protocol/a2a-v01/tasks.js';

export const v01PushBody = (task: Task): unknown => taskFromV1(task);
