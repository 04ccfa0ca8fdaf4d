/** A point in time in a management query string: RFC 3339 with an offset, or epoch ms. */
import { z } from 'zod';

export const queryInstant = z.union([
  z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
  z
    .string()
    .datetime({ offset: true })
    .transform((s) => Date.parse(s)),
]);
