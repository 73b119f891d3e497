/**
 * Where people write to get an invitation code until GET /config answers with the
 * server's SUPPORT_EMAIL (see useSupportEmail).
 */
export const SUPPORT_EMAIL: string =
  import.meta.env.VITE_SUPPORT_EMAIL?.trim() || 'support@perch.local';

/** Path of the app inside the site (Vite's `base`), e.g. `/dashboard/`. */
export const APP_BASE_PATH: string = import.meta.env.BASE_URL;
