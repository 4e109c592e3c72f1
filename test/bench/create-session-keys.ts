// Creates polar sessions in a database (what `polar sessions new` does) and returns their API keys.
import { openStore } from '../../src/store/open-store.js';

export function createSessionKeys(dbPath: string, count: number): string[] {
  const store = openStore(dbPath);
  try {
    return Array.from({ length: count }, (_, i) => store.sessions.create({ label: `bench-${i}` }).key);
  } finally {
    store.close();
  }
}
