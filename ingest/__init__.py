"""Mining: finished conversations become palace rows, entities, relations and embeddings."""
