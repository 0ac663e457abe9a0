# Writes tests/data/traces/vllm-request-log.log (python3 make_vllm_request_log.py > vllm-request-log.log): RequestLogger's lines (vllm/entrypoints/logger.py)
# under the logging config of docs/trace.md ("%(created).6f %(levelname)s %(name)s %(message)s").
import sys
T0 = 1764403260.25
S = list(range(1000, 2024))                      # a 1,024-token system prompt
A = S + list(range(5000, 5100))                  # 1,124 tokens
B = S + list(range(6000, 6300))                  # 1,324 tokens
C = S[:600] + list(range(7000, 7100))            # 700 tokens
D = list(range(300, 340))                        # 40 tokens, given as ids (prompt: None)
E = list(range(10, 22))                          # 12 tokens
sp = lambda n: ("SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, "
                "temperature=0.7, top_p=1.0, top_k=0, min_p=0.0, seed=None, stop=[], stop_token_ids=[], "
                "bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=%d, min_tokens=0, "
                "logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, "
                "structured_outputs=None, extra_args=None)" % n)
L = []
def line(t, level, name, msg): L.append("%.6f %s %s %s" % (T0 + t, level, name, msg))
lg = "vllm.entrypoints.logger"
def req(t, rid, text, ids, max_tokens):
    line(t, "DEBUG", lg, "Request %s details: prompt: %s, prompt_token_ids: %s, prompt_embeds shape: None." % (rid, text, ids))
    line(t + 0.000112, "INFO", lg, "Received request %s: params: %s, lora_request: None." % (rid, sp(max_tokens)))
def gen(t, rid, text, ids, finish="stop"):
    line(t, "INFO", lg, "Generated response %s: output: %s, output_token_ids: %s, finish_reason: %s" % (rid, text, ids, finish))
line(-60.2, "INFO", "vllm.entrypoints.openai.api_server", "vLLM API server version 0.11.1")
line(-60.1, "INFO", "vllm.entrypoints.utils", "non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'enable_log_requests': True, 'enable_log_outputs': True}")
line(-5.0, "INFO", "vllm.entrypoints.launcher", "Route: /v1/chat/completions, Methods: POST")
req(0.0, "chatcmpl-a1", repr("You are a helpful assistant. What is a KV cache?"), A, 128)
line(0.4, "INFO", "vllm.v1.metrics.loggers", "Engine 000: Avg prompt throughput: 112.4 tokens/s, Avg generation throughput: 0.7 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%, Prefix cache hit rate: 0.0%")
req(0.5, "chatcmpl-b2", repr("You are a helpful assistant. Explain prefix caching."), B, 256)
gen(0.9, "chatcmpl-a1", repr("A KV cache holds keys and values."), [32, 735, 6636, 10187, 7039, 323, 2819])
line(1.0, "INFO", "uvicorn.access", '127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200')
L.append("%.6f INFO %s Generated response chatcmpl-b2 (streaming delta): output: 'Prefix', output_token_ids: [14335], finish_reason: None" % (T0 + 1.1, lg))
L.append("%.6f INFO %s Generated response chatcmpl-b2 (streaming complete): output: 'Prefix caching reuses blocks.', output_token_ids: None, finish_reason: stop" % (T0 + 1.6, lg))
req(2.0, "chatcmpl-c3", repr("You are a helpful assistant. Hi"), C, 64)
gen(2.3, "chatcmpl-c3", repr("Hello!"), [9906, 0, 128009])
req(3.25, "cmpl-d4-0", "None", D, 16)
req(4.0, "chatcmpl-e5", repr('He said "hi", prompt_token_ids: [1] it\'s'), E, 32)
gen(4.2, "chatcmpl-e5", repr("Ok."), [18, 13])
line(10.0, "INFO", "vllm.v1.metrics.loggers", "Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 51.2%")
sys.stdout.write("\n".join(L) + "\n")
