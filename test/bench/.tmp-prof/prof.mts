import { gatewayScenarios, runGatewayOverhead } from '../gateway-overhead.js';
const want = (process.env.WANT ?? 'JSON c=1 69 KB,stream c=1 69 KB').split(',');
const scenarios = gatewayScenarios(Number(process.env.SCALE ?? '0.5')).filter((s) => want.includes(s.label));
console.log(await runGatewayOverhead({ scenarios, cpuProfileDir: process.env.PROF || undefined }));
