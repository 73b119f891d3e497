import { listInvitations } from '../modules/invitations/invitations.repository.js';
import { createInvitation } from '../modules/invitations/invitations.service.js';
import {
  parseRole,
  positiveInt,
  printTable,
  type CliCommand,
  type CommandGroup,
} from './cli-command.js';

/** `invite create`: a new invitation; its code is the last line printed. */
async function createInviteCommand({ db, values }: CliCommand): Promise<void> {
  const role = values.role === undefined ? 'user' : parseRole(values.role);
  const invitation = await createInvitation(db, {
    role,
    maxUses: positiveInt(values.uses, '--uses', 1) ?? 1,
    expiresInDays: positiveInt(values['expires-days'], '--expires-days', null),
    createdBy: null,
  });
  const expiry = invitation.expires_at ? `expires ${invitation.expires_at}` : 'never expires';
  console.log(`Invitation for role ${role}, ${invitation.max_uses} use(s), ${expiry}:`);
  console.log(invitation.code);
}

/** `invite list`: the invitations, without their codes. */
async function listInvitesCommand({ db }: CliCommand): Promise<void> {
  // Codes are shown once, by `invite create`: the database keeps only their hashes.
  printTable(await listInvitations(db.db), (r) => ({
    id: r.id,
    role: r.role,
    uses: `${r.uses}/${r.max_uses}`,
    expires: r.expires_at,
    created: r.created_at,
    revoked: r.revoked_at,
  }));
}

/** The `invite` commands. */
export const inviteCommands: CommandGroup = {
  create: createInviteCommand,
  list: listInvitesCommand,
};
