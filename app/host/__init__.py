"""The process host: uvicorn's server with Kaboom's connection caps and deadlines, the worker processes,
each worker's slow lane and the memory allocator's limits. The web layer and the service never import it:
it is handed what it runs."""
