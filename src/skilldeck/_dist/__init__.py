"""_dist"""
