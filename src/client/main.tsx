import { hydrate, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import superjson from 'superjson';
import { FIRST_DATA_ID } from '../shared/first-queries';
import { App, preloadPage } from './App';
import './styles.css';
import { queryClient, trpc, trpcClient } from './trpc';

// The answers the first paint needs (who is signed in, the public page's own data), sent inside
// the page by the server (src/server/http/first-data.ts): the page renders with them at once
// instead of asking for them once this script has run.
const firstData = document.getElementById(FIRST_DATA_ID)?.textContent;
if (firstData) hydrate(queryClient, superjson.deserialize(JSON.parse(firstData)));

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// The first render is a transition: React renders it in slices of a few milliseconds and lets
// the browser in between, rather than in one long task (a phone's main thread would be blocked
// for the whole page); nothing is on screen before it anyway.
void preloadPage(window.location.pathname).then(() =>
  startTransition(() =>
    createRoot(root).render(
      <StrictMode>
        <trpc.Provider client={trpcClient} queryClient={queryClient}>
          <QueryClientProvider client={queryClient}>
            <App />
          </QueryClientProvider>
        </trpc.Provider>
      </StrictMode>,
    ),
  ),
);
