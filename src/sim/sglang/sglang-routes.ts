// The simulator's route table in SGLang mode: what a `python -m sglang.launch_server` answers (no /version:
// that is vLLM's), plus the router's worker list on request.
import type { RouteTable } from '../sim-server.js';
import { sendJson } from '../write-response.js';
import { handleSglangChat } from './sglang-chat.js';
import { SGLANG_CONTROL_ROUTES } from './sglang-control-routes.js';
import { handleSglangGenerate } from './sglang-generate.js';
import { sendSglangMetrics } from '../metrics/render-sglang-metrics.js';
import { handleSglangDetokenize, handleSglangTokenize, handleWorkers, modelInfo, modelList, serverInfo, sglangMaxTotalTokens } from './sglang-info.js';

export const SGLANG_ROUTES: RouteTable = {
  '/health': { method: 'GET', run: (_req, res) => void res.writeHead(200, { 'content-length': 0 }).end() },
  '/health_generate': { method: 'GET', run: (_req, res) => void res.writeHead(200, { 'content-length': 0 }).end() },
  '/get_model_info': { method: 'GET', run: (_req, res, o) => sendJson(res, 200, modelInfo(o)) },
  '/get_server_info': { method: 'GET', run: (_req, res, o) => sendJson(res, 200, serverInfo(o)) },
  '/v1/models': { method: 'GET', run: (_req, res, o) => sendJson(res, 200, modelList(o)) },
  '/v1/chat/completions': { method: 'POST', run: handleSglangChat },
  '/generate': { method: 'POST', run: handleSglangGenerate },
  '/tokenize': { method: 'POST', run: handleSglangTokenize },
  '/v1/tokenize': { method: 'POST', run: handleSglangTokenize },
  '/detokenize': { method: 'POST', run: (req, res) => handleSglangDetokenize(req, res) },
  '/v1/detokenize': { method: 'POST', run: (req, res) => handleSglangDetokenize(req, res) },
  '/workers': { method: 'GET', run: (_req, res, o) => handleWorkers(res, o, false) },
  '/list_workers': { method: 'GET', run: (_req, res, o) => handleWorkers(res, o, true) },
  // Mounted only with --enable-metrics; otherwise FastAPI's 404 like any unknown route.
  '/metrics': {
    method: 'GET',
    run: (_req, res, o) =>
      o.sglang.enableMetrics
        ? sendSglangMetrics(res, o.generation.metrics(), { modelName: o.modelName, maxTotalTokens: sglangMaxTotalTokens(o), createdSeconds: o.startedAt })
        : sendJson(res, 404, { detail: 'Not Found' }),
  },
  ...SGLANG_CONTROL_ROUTES,
};
