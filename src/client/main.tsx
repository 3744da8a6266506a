import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { config as zodConfig } from 'zod';
import { App } from './App';
import './styles.css';
import { queryClient, trpc, trpcClient } from './trpc';

// Zod's faster parsers are compiled with `new Function`, which the app's CSP forbids (no
// 'unsafe-eval'); without this, zod probes for it and the browser reports a CSP violation.
zodConfig({ jitless: true });

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <trpc.Provider client={trpcClient} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </trpc.Provider>
  </StrictMode>,
);
