/**
 * The function tools the chat completions integration tests offer the scripted model.
 *
 * @example
 * await client.chat.completions.create({ model: 'scripted', messages, tools: [weather, time] });
 */
import type { ChatCompletionTool } from 'openai/resources/chat/completions';

export const weatherParams = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer' } },
  required: ['city', 'days'],
};
export const weather: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherParams },
};
export const time: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: {}, required: [] } },
};
