eval(atob('MSsx'));
