/**
 * The grammar checks of a request before its model is downloaded or loaded: every schema the
 * request's grammar will hold output to (each allowed tool's parameters, a `json_schema` text
 * format) is converted within the budgets, in one grammar as the request will have it, and run
 * through llama.cpp's own limits ({@link checkLlamaGrammarPaced}). A schema that fails is a 400 naming its
 * param now, not a failure after a download. The family's tool markup around the arguments is added
 * at generation, once the model is known; it is constant text and changes none of these bounds.
 * The work yields to the event loop between definitions ({@link pace}).
 */
import { clip, invalidRequest } from '../../../common/api-error';
import { pace } from '../../../common/pace';
import { heldSchema } from '../../held-schema';
import { callableTools } from '../../tool-formats/request-plan';
import { grammarArguments } from '../../tool-formats/shared';
import type { GenerateRequest } from '../../types';
import { GbnfBuilder } from './gbnf';
import { GrammarTooComplexError } from './grammar-budget';
import { JsonSchemaRules, UnsupportedSchemaError } from './json-schema-gbnf';
import { checkLlamaGrammarPaced, LlamaGrammarError } from './llama-limits';

/**
 * Throws a 400 `invalid_request_error` (param `tools[i].parameters` or `text.format.schema`) when a
 * schema of `req` has no grammar llama.cpp would accept within the budgets.
 *
 * @example
 * await preflightGrammar(req); // before engine.load(req.model)
 */
export async function preflightGrammar(
  req: Pick<GenerateRequest, 'tools' | 'toolChoice' | 'allowedTools' | 'format'>,
): Promise<void> {
  const schemas: Array<{ param: string; schema: Record<string, unknown> }> = [];
  for (const tool of callableTools(req)) {
    if (tool.parameters)
      schemas.push({ param: `tools[${req.tools.indexOf(tool)}].parameters`, schema: grammarArguments(tool) });
  }
  if (req.format.type === 'json_schema') {
    const schema = heldSchema(req.format.schema, req.format.strict);
    schemas.push({ param: 'text.format.schema', schema });
  }
  if (schemas.length === 0) return;
  const g = new GbnfBuilder();
  const root = g.reserve('root');
  const alternatives: string[] = [];
  for (const [i, { param, schema }] of schemas.entries()) {
    try {
      alternatives.push(
        g.add(
          `s${i}-value`,
          await new JsonSchemaRules(g, schema, `s${i}-`).expressionPaced(schema, '', pace),
        ),
      );
    } catch (err) {
      if (err instanceof UnsupportedSchemaError || err instanceof GrammarTooComplexError) {
        throw invalidRequest(
          param,
          `${err.message}${err.path ? ` (at ${clip(err.path, 200)})` : ''}`,
          'unsupported_value',
        );
      }
      throw err;
    }
  }
  g.fill(root, alternatives.join(' | '));
  await pace();
  try {
    await checkLlamaGrammarPaced(g.toString(), pace);
  } catch (err) {
    if (!(err instanceof LlamaGrammarError)) throw err;
    const owner = /^s(\d+)-/.exec(err.rule);
    const param = owner ? schemas[Number(owner[1])]?.param : undefined;
    throw invalidRequest(param ?? (schemas[0] as { param: string }).param, err.message, 'unsupported_value');
  }
}
