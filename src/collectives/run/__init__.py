"""Processes to records: one run measured (measure), timed (bench) or a ping-pong, as files.

Importing this package starts nothing: run.record holds the record and its constants
without the transports, so that the pipeline's config checks stay light.
"""
