"""The portal: server-rendered bilingual pages and their JSON twins over the store and search."""
