"""Models behind an OpenAI-compatible server: the chat model, its scorer and likelihoods, the
adapters a vLLM serves as LoRA modules, and the local server mindstream starts."""
