// Runs the polar program and exits with its code (imported by bin/polar.js).
import { main } from './main.js';

process.exit(await main(process.argv));
