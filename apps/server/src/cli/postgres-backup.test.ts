import { describe, expect, it } from 'vitest';
import { pinnedSchema, postgresBackupCommands, shellQuote } from './postgres-backup.js';

describe('pg_dump and pg_restore commands for a DATABASE_URL', () => {
  it.each([
    {
      why: 'the password in the URL is left out',
      url: 'postgres://perch:s3cret@db.internal:5432/perch',
      file: 'perch.dump',
      dump: 'pg_dump --format=custom --file=perch.dump --dbname=postgres://perch@db.internal:5432/perch',
      restore:
        'pg_restore --no-owner --exit-on-error --dbname=postgres://perch@db.internal:5432/perch perch.dump',
      passwordLeftOut: true,
    },
    {
      why: 'a password parameter is left out, the other parameters kept',
      url: 'postgresql://perch@db/perch?password=s3cret&sslmode=require',
      file: '/backups/perch.dump',
      dump: "pg_dump --format=custom --file=/backups/perch.dump --dbname='postgresql://perch@db/perch?sslmode=require'",
      restore:
        "pg_restore --no-owner --exit-on-error --dbname='postgresql://perch@db/perch?sslmode=require' /backups/perch.dump",
      passwordLeftOut: true,
    },
    {
      why: 'no password: nothing to say about it',
      url: 'postgres://perch@127.0.0.1/perch',
      file: 'perch.dump',
      dump: 'pg_dump --format=custom --file=perch.dump --dbname=postgres://perch@127.0.0.1/perch',
      restore:
        'pg_restore --no-owner --exit-on-error --dbname=postgres://perch@127.0.0.1/perch perch.dump',
      passwordLeftOut: false,
    },
    {
      why: 'a schema pinned by search_path: only that schema is dumped; file names are quoted',
      url: 'postgres://perch:pw@db/shared?options=-c%20search_path%3Dperch_blue&password=s3cret',
      file: "Perch's backup.dump",
      dump: "pg_dump --format=custom --schema=perch_blue --file='Perch'\\''s backup.dump' --dbname='postgres://perch@db/shared?options=-c%20search_path%3Dperch_blue'",
      restore:
        "pg_restore --no-owner --exit-on-error --dbname='postgres://perch@db/shared?options=-c%20search_path%3Dperch_blue' 'Perch'\\''s backup.dump'",
      passwordLeftOut: true,
    },
  ])('$why', ({ url, file, dump, restore, passwordLeftOut }) => {
    const commands = postgresBackupCommands(url, file);
    expect(commands).toEqual({ dump, restore, passwordLeftOut });
    expect(`${commands.dump} ${commands.restore}`).not.toMatch(/s3cret|:pw@/);
  });

  it.each([
    ['postgres://db/perch', undefined],
    ['postgres://db/perch?options=-c%20search_path%3Dpublic', undefined],
    ['postgres://db/perch?options=-c%20search_path%3D%24user%2Cpublic', undefined],
    ['postgres://db/perch?options=-csearch_path%3Dteam_a%2Cpublic', 'team_a'],
    ['postgres://db/perch?options=--search_path%3D%22team_b%22', 'team_b'],
  ])('pinnedSchema(%s) is %s', (url, schema) => {
    expect(pinnedSchema(url)).toBe(schema);
  });

  it.each([
    ['perch.dump', 'perch.dump'],
    ['/var/backups/perch-2026-01-31.dump', '/var/backups/perch-2026-01-31.dump'],
    ['my backup', "'my backup'"],
    ["it's", "'it'\\''s'"],
    ['$HOME/x', "'$HOME/x'"],
  ])('shellQuote(%s) is %s', (value, quoted) => {
    expect(shellQuote(value)).toBe(quoted);
  });
});
