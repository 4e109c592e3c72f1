// zod schemas for inbound Google generateContent requests (camelCase; snake_case aliases are
// normalised first by normalizeGoogleFieldNames). Loose objects: unknown fields pass.
import { z } from 'zod';

const optionalNumber = z.number().nullish();
const jsonObject = z.record(z.string(), z.unknown());

const inlineDataSchema = z.looseObject({ mimeType: z.string(), data: z.string() });
const fileDataSchema = z.looseObject({ mimeType: z.string().nullish(), fileUri: z.string() });

const googlePartSchema = z.looseObject({
  text: z.string().nullish(),
  /** A thought summary (reasoning); only meaningful in `model` turns. */
  thought: z.boolean().nullish(),
  /** Google's opaque reasoning token; Gemini CLI sends a fake one on function calls. */
  thoughtSignature: z.string().nullish(),
  inlineData: inlineDataSchema.nullish(),
  fileData: fileDataSchema.nullish(),
  functionCall: z
    .looseObject({ id: z.string().nullish(), name: z.string(), args: jsonObject.nullish() })
    .nullish(),
  functionResponse: z
    .looseObject({
      id: z.string().nullish(),
      name: z.string(),
      response: jsonObject.nullish(),
      /** Multimodal results (images) next to `response`. */
      parts: z.array(z.looseObject({ inlineData: inlineDataSchema.nullish(), fileData: fileDataSchema.nullish() })).nullish(),
    })
    .nullish(),
});

const googleContentSchema = z.looseObject({
  /** `user` (default), `model`, or the legacy `function` role for function responses. */
  role: z.string().nullish(),
  parts: z.array(googlePartSchema),
});

const googleFunctionDeclarationSchema = z.looseObject({
  name: z.string(),
  description: z.string().nullish(),
  /** OpenAPI-subset schema (upper-case types). */
  parameters: jsonObject.nullish(),
  /** Plain JSON Schema. */
  parametersJsonSchema: jsonObject.nullish(),
});

export const googleGenerateContentRequestSchema = z.looseObject({
  contents: z.array(googleContentSchema),
  systemInstruction: z.union([z.string(), z.looseObject({ parts: z.array(googlePartSchema) })]).nullish(),
  tools: z.array(z.looseObject({ functionDeclarations: z.array(googleFunctionDeclarationSchema).nullish() })).nullish(),
  toolConfig: z
    .looseObject({
      functionCallingConfig: z
        .looseObject({ mode: z.string().nullish(), allowedFunctionNames: z.array(z.string()).nullish() })
        .nullish(),
    })
    .nullish(),
  generationConfig: z
    .looseObject({
      temperature: optionalNumber,
      topP: optionalNumber,
      topK: optionalNumber,
      maxOutputTokens: optionalNumber,
      stopSequences: z.array(z.string()).nullish(),
      seed: optionalNumber,
      presencePenalty: optionalNumber,
      frequencyPenalty: optionalNumber,
      candidateCount: optionalNumber,
      thinkingConfig: z
        .looseObject({ includeThoughts: z.boolean().nullish(), thinkingBudget: optionalNumber })
        .nullish(),
    })
    .nullish(),
  cachedContent: z.string().nullish(),
});

export type GoogleGenerateContentRequest = z.infer<typeof googleGenerateContentRequestSchema>;
export type GoogleWireContent = z.infer<typeof googleContentSchema>;
export type GoogleWirePart = z.infer<typeof googlePartSchema>;
export type GoogleWireFunctionDeclaration = z.infer<typeof googleFunctionDeclarationSchema>;
