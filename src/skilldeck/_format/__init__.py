"""_format"""
