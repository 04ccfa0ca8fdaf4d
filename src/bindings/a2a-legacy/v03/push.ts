/** The webhook body of a config a v0.3 client registered (specification.md §9 at v0.3.0): the bare Task, `kind:"task"`, kebab-case states. */
import type { Task } from '../../../protocol/a2a/types.js';
import { taskFromV1 } from '../../../protocol/a2a-v03/tasks.js';

export const v03PushBody = (task: Task): unknown => taskFromV1(task);
