import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { applyColorScheme } from './lib/color-scheme';
import { removeLegacyTokens } from './lib/legacy-tokens';

// Browser auth is cookie sessions only: tokens left by older clients are removed, never sent.
removeLegacyTokens();
// The stored light or dark, before the first paint (Mantine, once loaded, keeps it up).
applyColorScheme();

const container = document.getElementById('root');
if (!container) throw new Error('The #root element is missing from index.html');

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
