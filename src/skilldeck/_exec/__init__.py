"""_exec"""
