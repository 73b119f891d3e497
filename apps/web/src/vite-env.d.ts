/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Support address shown for invitation requests; defaults to support@perch.local. */
  readonly VITE_SUPPORT_EMAIL?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
