// Qwen ChatML token ids and turn builders shared by the hand-built sessions of trajectory and export tests.

/** <|im_start|>, <|im_end|>, "\n", role names, <tool_response> / </tool_response>. */
export const S = 151644;
export const E = 151645;
export const NL = 198;
export const SYSTEM = 8948;
export const USER = 872;
export const ASSISTANT = 77091;
export const TR_OPEN = 151665;
export const TR_CLOSE = 151666;

export const turn = (role: number, ...content: number[]) => [S, role, NL, ...content, E, NL];
/** The generation prompt: an open assistant turn. */
export const GEN = [S, ASSISTANT, NL];
/** What the template appends after a closed assistant turn before the next prompt: a tool result. */
export const toolResult = (...content: number[]) => [NL, S, USER, NL, TR_OPEN, ...content, TR_CLOSE, E, NL, ...GEN];
