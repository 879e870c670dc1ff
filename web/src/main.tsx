import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'urql';
import { App } from './app/App';
import { createClient } from './lib/client';
import { takeTokenFromLocation } from './lib/token';
import './styles.css';

takeTokenFromLocation();
const client = createClient();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Provider value={client}>
      <App />
    </Provider>
  </StrictMode>,
);
