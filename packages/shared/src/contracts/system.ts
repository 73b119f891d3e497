import { z } from 'zod';

export const healthResponseSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  database: z.enum(['ok', 'error']),
  uptimeSeconds: z.number(),
  version: z.string(),
  timestamp: z.string(),
});
export type Health = z.infer<typeof healthResponseSchema>;

/** Heartbeat body; also sent as a beacon on unload, with `event`. */
export const heartbeatRequestSchema = z
  .object({
    user_id: z
      .union([z.number(), z.string().max(64)])
      .nullable()
      .optional(),
    client_id: z.string().max(128).optional(),
    timestamp: z.union([z.number(), z.string().max(64)]).optional(),
    userAgent: z.string().max(1000).optional(),
    url: z.string().max(2048).optional(),
    event: z.string().max(64).optional(),
  })
  .optional();

export const heartbeatResponseSchema = z.object({
  received: z.literal(true),
  serverTime: z.string(),
});

/** What the web app may know about the installation before anyone signs in. */
export const publicConfigSchema = z.object({
  supportEmail: z.string(),
  tweetSource: z.enum(['demo', 'x-api', 'x-web']),
  version: z.string(),
});
export type PublicConfig = z.infer<typeof publicConfigSchema>;
