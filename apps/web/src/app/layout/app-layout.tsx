import {
  AppShell,
  Badge,
  Box,
  Burger,
  Divider,
  Group,
  Menu,
  NavLink,
  Progress,
  ScrollArea,
  Stack,
  Text,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconBell,
  IconChevronDown,
  IconHelpCircle,
  IconLayoutDashboard,
  IconLogout,
  IconSettings,
  IconShieldLock,
  IconUserCircle,
  type Icon,
} from '@tabler/icons-react';
import { lazy } from 'react';
import {
  NavLink as RouterNavLink,
  Outlet,
  useLocation,
  useNavigate,
  useNavigation,
} from 'react-router';
import { Brand } from '@/components/brand';
import { ColorSchemeToggle } from '@/components/color-scheme-toggle';
import { useLogoutMutation } from '@/features/auth/api/logout';
import { useAuth } from '@/features/auth/hooks/use-auth';
import { SECURITY_TEXTS } from '@/features/security/utils/security-texts';
import { HandlesSidebarList } from '@/features/handles/components/handles-sidebar-list';
import { useLiveEvents } from '@/features/handles/hooks/use-live-events';
import { applyAlertEvents } from '@/features/alerts/api/live-alerts';
import {
  useCircuitOpen,
  useEndSession,
  useIsLeadingTab,
  useSessionHeartbeat,
} from '@/lib/client-runtime-react';
import { useApplyCompactMode } from '@/lib/preferences/compact-mode';
import { RenderMonitor } from '@/lib/preferences/render-monitor';
import { SIGN_OUT_CONTROL_PROPS } from '@/lib/tabs/sign-out';
import { useSelectedHandle } from '../hooks/use-selected-handle';
import { LazySection } from '../lazy/lazy-section';
import { ConnectionBanner } from './connection-banner';

// The alert panel is empty for most visits: its code loads beside the page, not before it.
const SecurityAlertPanel = lazy(() =>
  import('@/features/security-alerts/components/security-alert-panel').then((module) => ({
    default: module.SecurityAlertPanel,
  })),
);

// The account details forms load when the account menu opens them.
const AccountDetailsDialog = lazy(() =>
  import('./account-details-dialog').then((module) => ({
    default: module.AccountDetailsDialog,
  })),
);

export const HEADER_TEXT = 'X Monitoring and Analytics System';

interface MenuEntry {
  label: string;
  to: string;
  icon: Icon;
  /** Exact match only (the dashboard would otherwise match every path). */
  end?: boolean;
}

function isActive(entry: MenuEntry, pathname: string): boolean {
  if (entry.to === '/') return pathname === '/' || pathname === '/dashboard';
  return pathname === entry.to || pathname.startsWith(`${entry.to}/`);
}

/**
 * The signed-in shell (docs/spec-notes.md, Layout): header with the user's badge (it opens the
 * account menu, with Account details), a 320 px sidebar that hides behind a burger below the `sm`
 * breakpoint, the security alert panel, and the page in the main area.
 */
/** What the other features do with the live stream's events. */
const LIVE_LISTENERS = [applyAlertEvents];

export function AppLayout() {
  const [navbarOpened, { toggle: toggleNavbar, close: closeNavbar }] = useDisclosure(false);
  const [accountDetailsOpened, { open: openAccountDetails, close: closeAccountDetails }] =
    useDisclosure(false);
  const navigate = useNavigate();
  const navigation = useNavigation();
  const { pathname } = useLocation();
  const { currentUser } = useAuth();
  const logoutMutation = useLogoutMutation();
  const endSession = useEndSession();
  useApplyCompactMode();
  const isLeadingTab = useIsLeadingTab();
  const circuitOpen = useCircuitOpen();
  useSessionHeartbeat(currentUser?.id ?? null);
  // One live stream per browser: the leading tab's updates reach the others with its results.
  // While the server does not answer, the stream stays closed instead of reconnecting every 5 s.
  useLiveEvents(isLeadingTab && !circuitOpen ? (currentUser?.id ?? null) : null, LIVE_LISTENERS);
  const { selectedHandle, selectHandle } = useSelectedHandle();

  const isAdmin = Boolean(currentUser?.isAdmin || currentUser?.isSuperAdmin);
  const menu: MenuEntry[] = [
    { label: 'Dashboard', to: '/', icon: IconLayoutDashboard, end: true },
    { label: 'Alerts', to: '/alerts', icon: IconBell },
    { label: 'Settings', to: '/settings', icon: IconSettings },
    ...(isAdmin ? [{ label: 'Admin', to: '/admin', icon: IconShieldLock }] : []),
    { label: 'FAQ', to: '/faq', icon: IconHelpCircle },
  ];

  const handleLogout = () => {
    // Every tab ends the session before the logout request leaves (no stream, heartbeat or poll
    // goes out for it any more), and before `mutate` re-renders this shell: its pages leave
    // first, so none of them fetches again for the session that is ending.
    endSession();
    logoutMutation.mutate(
      { userId: currentUser?.id ?? null },
      { onSettled: () => void navigate('/login', { replace: true }) },
    );
  };

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 320, breakpoint: 'sm', collapsed: { mobile: !navbarOpened } }}
      padding={{ base: 'md', sm: 'xl' }}
    >
      <AppShell.Header>
        {navigation.state === 'loading' ? (
          <Progress
            value={100}
            animated
            size={2}
            radius={0}
            pos="absolute"
            top={0}
            left={0}
            right={0}
            aria-label="Loading page"
          />
        ) : null}
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" miw={0} style={{ flex: 1 }}>
            <Burger
              opened={navbarOpened}
              onClick={toggleNavbar}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
            />
            <Text fw={600} truncate="end" fz={{ base: 'sm', sm: 'md' }}>
              {HEADER_TEXT}
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap" style={{ flexShrink: 0 }}>
            {currentUser ? (
              <Menu position="bottom-end" shadow="md" width={200}>
                <Menu.Target>
                  <Badge
                    component="button"
                    type="button"
                    data-testid="user-badge"
                    variant="light"
                    size="lg"
                    radius="sm"
                    tt="none"
                    maw={{ base: 120, xs: 220 }}
                    title={currentUser.email}
                    rightSection={<IconChevronDown size={14} aria-hidden />}
                    style={{ cursor: 'pointer' }}
                  >
                    {currentUser.username || currentUser.email}
                  </Badge>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Item
                    leftSection={<IconUserCircle size={16} stroke={1.6} />}
                    onClick={openAccountDetails}
                  >
                    {SECURITY_TEXTS.accountDetailsTitle}
                  </Menu.Item>
                </Menu.Dropdown>
              </Menu>
            ) : null}
            <ColorSchemeToggle />
          </Group>
        </Group>
      </AppShell.Header>

      <AppShell.Navbar p="md" aria-label="Main navigation">
        <AppShell.Section>
          <Box px="xs" pb="md">
            <Brand />
          </Box>
        </AppShell.Section>
        <AppShell.Section grow component={ScrollArea} type="scroll">
          <Stack gap="lg">
            <Stack gap={4} component="nav" aria-label="Menu">
              {menu.map((entry) => (
                <NavLink
                  key={entry.to}
                  component={RouterNavLink}
                  to={entry.to}
                  end={entry.end}
                  active={isActive(entry, pathname)}
                  label={entry.label}
                  leftSection={<entry.icon size={18} stroke={1.6} />}
                  onClick={closeNavbar}
                  variant="light"
                  style={{ borderRadius: 'var(--mantine-radius-md)' }}
                />
              ))}
            </Stack>
            <Divider />
            <HandlesSidebarList
              selectedHandle={selectedHandle}
              onSelect={(handle) => {
                selectHandle(handle);
                closeNavbar();
              }}
            />
          </Stack>
        </AppShell.Section>
        <AppShell.Section pt="md">
          <Divider mb="md" />
          <NavLink
            component="button"
            type="button"
            label="Logout"
            leftSection={<IconLogout size={18} stroke={1.6} />}
            // Pressing it does not make this tab take the lead for the session it ends.
            {...SIGN_OUT_CONTROL_PROPS}
            onClick={handleLogout}
            disabled={logoutMutation.isPending}
            color="red"
            style={{ borderRadius: 'var(--mantine-radius-md)' }}
          />
        </AppShell.Section>
      </AppShell.Navbar>

      <AppShell.Main>
        {currentUser ? (
          <LazySection errorTitle="The security alerts could not be loaded.">
            <SecurityAlertPanel userId={currentUser.id} />
          </LazySection>
        ) : null}
        {currentUser && accountDetailsOpened ? (
          <LazySection errorTitle={SECURITY_TEXTS.accountDetailsFailed}>
            <AccountDetailsDialog opened onClose={closeAccountDetails} email={currentUser.email} />
          </LazySection>
        ) : null}
        <Box maw={1200} mx="auto">
          <ConnectionBanner />
          <RenderMonitor id="page">
            <Outlet />
          </RenderMonitor>
        </Box>
      </AppShell.Main>
    </AppShell>
  );
}
