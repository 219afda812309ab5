/**
 * What a GGUF's chat template(s) mean for a wllama request, read from the templates' text: which
 * template llama.cpp is loaded with, whether that template writes tools and calls itself, and the
 * template variables that make llama.cpp render what the published template renders.
 */

/**
 * The template llama.cpp is loaded with, or null for the GGUF's own `tokenizer.chat_template`.
 *
 * llama.cpp's converter stores a repository's two templates (NousResearch's Hermes: `default`, plain
 * ChatML, and `tool_use`) as `tokenizer.chat_template` and `tokenizer.chat_template.tool_use`, and
 * llama.cpp renders a request with `tool_use` only when the request has `tools` (`common/chat.cpp`).
 * intab hands a template its tools as a template variable, never as llama.cpp's `tools` field (that
 * one turns on llama.cpp's tool-call handling, which refuses a grammar), so llama.cpp alone would
 * always render `default`: the model would see no tools and none of its past calls. The template
 * loaded instead makes the same choice llama.cpp makes, on the variable intab sets: `tool_use`
 * when the request has tools, `default` otherwise.
 *
 * @example
 * loadedTemplate(chatml, hermesToolUse); // '{%- if tools %}…{%- else %}…{%- endif %}'
 * loadedTemplate(llama3, null); // null
 */
export function loadedTemplate(defaultTemplate: string | null, toolUse: string | null): string | null {
  if (!toolUse) return null;
  if (!defaultTemplate) return toolUse;
  return `{%- if tools %}${toolUse}{%- else %}${defaultTemplate}{%- endif %}`;
}

/**
 * Whether a template writes a request's tools and an assistant turn's `tool_calls` itself: it reads
 * both. A Mistral 7B v0.3 GGUF converted before mistralai's template had tools reads neither (its
 * family is known from its name only), and then intab writes the tool section and the calls as text,
 * as for a family with no native template.
 *
 * @example
 * templateReadsTools(publishedHermesToolUse); // true
 * templateReadsTools("{{ '[INST] ' + message['content'] + ' [/INST]' }}"); // false
 */
export function templateReadsTools(template: string): boolean {
  return /\btools\b/.test(template) && /\btool_calls\b/.test(template);
}

/** Whether the template renders `tool` messages (some role test or branch names it). */
export function templateHasToolRole(template: string): boolean {
  return /['"](tool|ipython)['"]/.test(template);
}

/**
 * Template variables that llama.cpp sets otherwise than the published rendering, with the value
 * the published template itself falls back to: llama.cpp sets `date_string` to today's date for
 * every template, and Meta's Llama 3.1 and 3.3 templates write `Today Date: 26 Jul 2024` unless the
 * caller sets it (`{%- if not date_string is defined %}{%- set date_string = "26 Jul 2024" %}`), so
 * their prompt changed every day. (Llama 3.2's sets it itself from `strftime_now`, today, as it is
 * published: a variable cannot change that.)
 *
 * @example
 * publishedDefaults(llama31Template); // { date_string: '26 Jul 2024' }
 */
export function publishedDefaults(template: string): Record<string, unknown> {
  const date =
    /if\s+not\s+date_string\s+is\s+defined\s*-?%\}\s*\{%-?\s*set\s+date_string\s*=\s*(["'])([^"'\n]{1,40})\1/.exec(
      template,
    );
  return date ? { date_string: date[2] } : {};
}
