// A private Postgres schema per benchmark run, as createTestDb does in the server tests: made
// with an admin connection, then put first on the search path of the URL the app is given.
import pg from 'pg';

/** Runs one statement on its own connection to `baseUrl`. */
async function adminQuery(baseUrl, statement) {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** Creates schema `name` in the database at `baseUrl`; returns the URL that searches it first. */
export async function createPgSchema(baseUrl, name) {
  await adminQuery(baseUrl, `create schema ${name}`);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return url.toString();
}

/** Drops schema `name` and everything in it (no error when it is gone already). */
export function dropPgSchema(baseUrl, name) {
  return adminQuery(baseUrl, `drop schema if exists ${name} cascade`);
}
